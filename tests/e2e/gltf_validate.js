// Validates .glb / .gltf files with the Khronos glTF validator.
// usage: node gltf_validate.js [--json] [--max-infos N] FILE...
// Prints one line per file: errors, warnings, infos, hints, and the messages
// of every error and warning (and of infos with --verbose). Exit status: 0 when
// every file has 0 errors and 0 warnings, 1 otherwise, 2 on a usage error.
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validate(file, verbose) {
  const data = fs.readFileSync(file);
  const dir = path.dirname(file);
  const report = await validator.validateBytes(new Uint8Array(data), {
    uri: path.basename(file),
    maxIssues: 0, // no limit
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
      fs.readFile(path.resolve(dir, decodeURIComponent(uri)), (err, d) => {
        if (err) reject(err.toString()); else resolve(new Uint8Array(d));
      });
    }),
  });
  const is = report.issues;
  let line = `${file}: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`;
  console.log(line);
  for (const m of is.messages) {
    if (m.severity <= 1 || verbose) {
      const sev = ['error', 'warning', 'info', 'hint'][m.severity] || m.severity;
      console.log(`  ${sev} ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
  }
  return is.numErrors + is.numWarnings;
}

async function main() {
  const args = process.argv.slice(2);
  let verbose = false;
  const files = [];
  for (const a of args) {
    if (a === '--verbose') verbose = true;
    else if (a.startsWith('--')) { console.error(`unknown option ${a}`); process.exit(2); }
    else files.push(a);
  }
  if (!files.length) {
    console.error('usage: node gltf_validate.js [--verbose] FILE...');
    process.exit(2);
  }
  let bad = 0;
  for (const f of files) {
    try {
      if (await validate(f, verbose)) bad++;
    } catch (e) {
      console.log(`${f}: validator failed: ${e}`);
      bad++;
    }
  }
  process.exit(bad ? 1 : 0);
}
main();
