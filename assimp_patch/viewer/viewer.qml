// A small Qt 3D viewer: loads one model through Qt 3D's Assimp scene-import
// plugin (which uses whatever libassimp.so.5 the dynamic loader finds: run it
// with LD_LIBRARY_PATH at the patched Assimp to open GameStudio files through
// gsio), frames it, and saves one rendered frame to a PNG, then quits.
//
// usage: qml viewer.qml -- MODEL OUT.PNG [--texture PNG] [--azimuth DEG] [--elevation DEG]
// (qml is Qt 6's QML runtime, /usr/lib/qt6/bin/qml). Prints "viewer: ..."
// lines; exits 0 after saving, 1 when the model does not load.
//
// --texture: Qt 3D's Assimp plugin (Qt 6.4) never shows an embedded
// texture (it opens a "*0" texture path as a file) and gives every mesh with
// morph targets an untextured QMorphPhongMaterial. With --texture, such
// meshes get a diffuse-mapped material with that image instead, e.g. the
// skin that `assimp extract MODEL` (the patched build) writes.
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
    function option(name, fallback) {
        const i = args.indexOf(name);
        return i >= 2 && i + 1 < args.length ? args[i + 1] : fallback;
    }
    readonly property string texture: option("--texture", "")
    readonly property real azimuth: Number(option("--azimuth", 30))
    readonly property real elevation: Number(option("--elevation", 20))

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
                fieldOfView: 30
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

            // The material --texture gives: diffuse-mapped, lit by the light below.
            // Inside the scene tree, so Qt 3D knows it when an entity takes it.
            DiffuseMapMaterial {
                id: texturedMaterial
                ambient: Qt.rgba(0.35, 0.35, 0.35, 1)
                specular: Qt.rgba(0.05, 0.05, 0.05, 1)
                shininess: 10
                diffuse: TextureLoader {
                    source: win.texture.length ? "file://" + win.texture : ""
                    mirrored: false   // as the plugin loads textures (its UVs are flipped)
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
                        onStatusChanged: (status) => {
                            if (status === SceneLoader.Ready) {
                                console.log("viewer: loaded " + win.model + " (" + loader.entityNames().length + " entities)");
                                if (win.texture.length)
                                    win.applyTexture();
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

    function applyTexture() {
        const names = loader.entityNames();
        let swapped = 0;
        for (let i = 0; i < names.length; ++i) {
            const material = loader.component(names[i], SceneLoader.MaterialComponent);
            if (!material || String(material).indexOf("MorphPhongMaterial") < 0)
                continue;
            const entity = loader.entity(names[i]);
            const kept = [];
            for (let c = 0; c < entity.components.length; ++c)
                if (entity.components[c] !== material)
                    kept.push(entity.components[c]);
            kept.push(texturedMaterial);
            entity.components = kept;
            ++swapped;
        }
        console.log("viewer: " + swapped + " morph-target meshes drawn with " + win.texture);
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
                console.log("viewer: saved " + win.output);
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
