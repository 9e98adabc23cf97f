// Runs the keypad firmware's core in MicroPython's WebAssembly port, under Node.
//
//   node deploy/keypad/host.mjs [FIRMWARE_DIR ...]
//
// The .py files of the firmware (deploy/keypad/firmware) and of testhost/ (kp_host: the calls the
// tests make) are copied into the interpreter's file system at /fw (on sys.path);
// /flash stands for the Pico's flash (the store). Each line on stdin is a JSON string holding
// Python source; it runs, and one line comes back on stdout: {"ok": true, "out": [lines printed]}
// or {"ok": false, "out": [...], "error": "the traceback"}. The tests drive the core this way
// (tests/support/micropython.py): keys, bytes from the gateway and the clock in, LCD and bytes out.
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const folders = process.argv.length > 2 ? process.argv.slice(2) : [join(here, "firmware")];
folders.push(join(here, "testhost"));
let printed = [];
const mp = await loadMicroPython({
  heapsize: 2 * 1024 * 1024,
  stdout: (line) => printed.push(line),
  stderr: (line) => printed.push(line),
});
mp.FS.mkdir("/fw");
mp.FS.mkdir("/flash");
for (const folder of folders) {
  for (const name of readdirSync(folder)) {
    if (name.endsWith(".py")) {
      mp.FS.writeFile(`/fw/${name}`, readFileSync(join(folder, name)));
    }
  }
}
mp.runPython("import sys\nsys.path.insert(0, '/fw')");

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  printed = [];
  let answer;
  try {
    mp.runPython(JSON.parse(line));
    answer = { ok: true, out: printed };
  } catch (error) {
    answer = { ok: false, out: printed, error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
