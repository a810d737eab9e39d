// A small Qt 3D viewer: loads one model through Qt 3D's Assimp scene-import
// plugin (which uses whatever libassimp.so.5 the dynamic loader finds: run it
// with LD_LIBRARY_PATH at the patched Assimp to open GameStudio files through
// gsio), frames it, and saves one rendered frame to a PNG, then quits.
//
// usage: qml viewer.qml -- MODEL OUT.PNG [AZIMUTH_DEG [ELEVATION_DEG]]
// (qml is Qt 6's QML runtime, /usr/lib/qt6/bin/qml). Prints "viewer: ..."
// lines; exits 0 after saving, 1 when the model does not load.
import QtQuick
import QtQuick.Window
import QtQuick.Scene3D
import Qt3D.Core
import Qt3D.Render
import Qt3D.Extras

Window {
    id: win
    width: 800
    height: 600
    visible: true
    color: "#404850"

    // The arguments after "--".
    readonly property var args: {
        const a = Qt.application.arguments;
        const i = a.indexOf("--");
        return i < 0 ? [] : a.slice(i + 1);
    }
    readonly property string model: args.length > 0 ? args[0] : ""
    readonly property string output: args.length > 1 ? args[1] : "viewer.png"
    readonly property real azimuth: args.length > 2 ? Number(args[2]) : 30
    readonly property real elevation: args.length > 3 ? Number(args[3]) : 20

    function fail(msg) {
        console.log("viewer: FAIL " + msg);
        Qt.exit(1);
    }

    Scene3D {
        id: scene3d
        anchors.fill: parent
        aspects: ["render", "logic", "input"]
        cameraAspectRatioMode: Scene3D.AutomaticAspectRatio
        multisample: false

        Entity {
            id: sceneRoot

            Camera {
                id: camera
                projectionType: CameraLens.PerspectiveProjection
                fieldOfView: 40
                nearPlane: 0.01
                farPlane: 100000
                upVector: Qt.vector3d(0, 1, 0)
                viewCenter: Qt.vector3d(0, 0, 0)
                // Looking from the azimuth/elevation given; viewAll() then
                // moves along this direction until the model fits.
                position: {
                    const az = win.azimuth * Math.PI / 180, el = win.elevation * Math.PI / 180;
                    return Qt.vector3d(Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el)).times(10);
                }
            }

            components: [
                RenderSettings {
                    activeFrameGraph: RenderSurfaceSelector {
                        Viewport {
                            normalizedRect: Qt.rect(0, 0, 1, 1)
                            CameraSelector {
                                camera: camera
                                ClearBuffers {
                                    buffers: ClearBuffers.ColorDepthBuffer
                                    clearColor: "#404850"
                                    RenderCapture { id: capture }
                                }
                            }
                        }
                    }
                },
                DirectionalLight {
                    color: "white"
                    intensity: 0.9
                    worldDirection: camera.viewVector.normalized()
                }
            ]

            Entity {
                id: modelEntity
                components: [
                    SceneLoader {
                        id: loader
                        source: win.model.length ? "file://" + win.model : ""
                        onStatusChanged: {
                            if (status === SceneLoader.Ready) {
                                console.log("viewer: loaded " + win.model + " (" + loader.entityNames().length + " entities)");
                                frameTimer.start();
                            } else if (status === SceneLoader.Error) {
                                win.fail("the scene loader cannot read " + win.model);
                            }
                        }
                    }
                ]
            }
        }
    }

    // viewAll() needs the bounding volumes, which the render aspect computes
    // a frame or two after loading: frame first, then capture a little later.
    Timer {
        id: frameTimer
        interval: 500
        onTriggered: { camera.viewAll(); captureTimer.start(); }
    }
    Timer {
        id: captureTimer
        interval: 1000
        onTriggered: {
            const reply = capture.requestCapture();
            reply.completed.connect(function() {
                if (!reply.saveImage(win.output))
                    win.fail("cannot save " + win.output);
                console.log("viewer: saved " + win.output + " (" + reply.image.width + "x" + reply.image.height + ")");
                Qt.quit();
            });
        }
    }
    Timer {
        interval: 30000
        running: true
        onTriggered: win.fail("timed out (no frame rendered in 30 s)")
    }
    Component.onCompleted: {
        if (!win.model.length)
            win.fail("usage: qml viewer.qml -- MODEL OUT.PNG [AZIMUTH [ELEVATION]]");
    }
}
