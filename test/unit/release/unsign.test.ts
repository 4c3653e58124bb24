/**
 * toolchain/release/unsign.ts on small executables made here, laid out as Node.js's macOS and
 * Windows binaries are: the signature is the last thing in the file. (The real binaries were read
 * back after `npm run release`: no LC_CODE_SIGNATURE, the PE certificate entry 0/0.)
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { removeMachOSignature, removePeSignature } from "../../../toolchain/release/unsign";

const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

/** A `__LINKEDIT` segment command (72 bytes) over [fileOff, fileOff + fileSize). */
function linkedit(fileOff: number, fileSize: number): Buffer {
  const c = Buffer.alloc(72);
  c.writeUInt32LE(LC_SEGMENT_64, 0);
  c.writeUInt32LE(72, 4);
  c.write("__LINKEDIT", 8, "latin1");
  c.writeBigUInt64LE(BigInt(fileOff), 40);
  c.writeBigUInt64LE(BigInt(fileSize), 48);
  return c;
}

/** An `LC_CODE_SIGNATURE` command (16 bytes). */
function codeSignature(dataOff: number, dataSize: number): Buffer {
  const c = Buffer.alloc(16);
  c.writeUInt32LE(LC_CODE_SIGNATURE, 0);
  c.writeUInt32LE(16, 4);
  c.writeUInt32LE(dataOff, 8);
  c.writeUInt32LE(dataSize, 12);
  return c;
}

/** A 64-bit Mach-O of 400 bytes: `__LINKEDIT` from 256, its signature 304..400, commands in `order`. */
function machO(order: "segment first" | "signature first"): Buffer {
  const cmds = [linkedit(256, 144), codeSignature(304, 96)];
  if (order === "signature first") cmds.reverse();
  const file = Buffer.alloc(400, 0xab);
  file.fill(0, 0, 256);
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(cmds.length, 16);
  file.writeUInt32LE(88, 20);
  Buffer.concat(cmds).copy(file, 32);
  return file;
}

function tmpFile(data: Buffer): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-unsign-")), "exe");
  fs.writeFileSync(f, data);
  return f;
}

describe("release: removing a Node.js binary's signature before the SEA blob goes in", () => {
  for (const order of ["segment first", "signature first"] as const) {
    it(`Mach-O (${order}): the command is dropped, the file and __LINKEDIT end where the signature began`, () => {
      const f = tmpFile(machO(order));
      assert.equal(removeMachOSignature(f), true);
      const out = fs.readFileSync(f);
      assert.equal(out.length, 304);
      assert.equal(out.readUInt32LE(16), 1, "one load command left");
      assert.equal(out.readUInt32LE(20), 72, "the commands' size");
      assert.equal(out.readUInt32LE(32), LC_SEGMENT_64, "__LINKEDIT is the first command");
      assert.equal(out.readBigUInt64LE(32 + 48), 48n, "__LINKEDIT's file size");
      assert.ok(
        out.subarray(32 + 72, 32 + 88).every((b) => b === 0),
        "the freed command bytes are zero",
      );
      assert.equal(removeMachOSignature(f), false, "a second pass finds no signature");
    });
  }

  it("Mach-O: refuses a file that is not one", () => {
    assert.throws(() => removeMachOSignature(tmpFile(Buffer.alloc(64))), /not a 64-bit Mach-O/);
  });

  it("PE32+: the certificate table is cut off and its directory entry zeroed", () => {
    const file = Buffer.alloc(0x280, 0xcd);
    file.fill(0, 0, 0x200);
    file.writeUInt32LE(0x40, 0x3c);
    file.write("PE\0\0", 0x40, "latin1");
    const opt = 0x40 + 24;
    file.writeUInt16LE(0x20b, opt);
    const dir = opt + 112 + 4 * 8;
    file.writeUInt32LE(0x200, dir);
    file.writeUInt32LE(0x80, dir + 4);
    const f = tmpFile(file);
    assert.equal(removePeSignature(f), true);
    const out = fs.readFileSync(f);
    assert.equal(out.length, 0x200);
    assert.deepEqual([out.readUInt32LE(dir), out.readUInt32LE(dir + 4)], [0, 0]);
    assert.equal(removePeSignature(f), false, "a second pass finds no signature");
  });
});
