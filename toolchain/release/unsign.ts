/**
 * Removes the signature of a Node.js binary before the SEA blob goes into it, on Linux, where
 * there is no `codesign` nor `signtool`. Node.js's macOS and Windows binaries are signed by its
 * publisher; injecting the blob changes what was signed, so the signature would no longer match:
 * macOS kills such a process at start, Windows shows it as tampered with. Node.js's SEA guide
 * removes the signature before `postject` (`codesign --remove-signature`, `signtool remove /s`);
 * the executable is then unsigned (a user may sign it: `codesign --sign - <file>` ad hoc on macOS).
 *
 * Mach-O: the `LC_CODE_SIGNATURE` load command is dropped (the commands after it move up, the
 * header's count and size shrink), the file is cut where the signature began (it is the last thing
 * in the file, at the end of `__LINKEDIT`), and `__LINKEDIT`'s file size ends there too.
 * PE: the certificate table (data directory 4, at the end of the file) is cut off and its entry
 * zeroed.
 *
 * @packageDocumentation
 */
import * as fs from "node:fs";

/** `MH_MAGIC_64`, little-endian: the x86_64 and arm64 executables. */
const MH_MAGIC_64 = 0xfeedfacf;
const HEADER_SIZE = 32;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

interface Command {
  /** Its offset in the file. */
  at: number;
  cmd: number;
  size: number;
}

/** The load commands of a 64-bit Mach-O image. */
function commands(buf: Buffer): Command[] {
  const out: Command[] = [];
  let at = HEADER_SIZE;
  for (let i = 0; i < buf.readUInt32LE(16); i++) {
    const c = { at, cmd: buf.readUInt32LE(at), size: buf.readUInt32LE(at + 4) };
    out.push(c);
    at += c.size;
  }
  return out;
}

/** A segment command's name (16 bytes, NUL-padded). */
function segmentName(buf: Buffer, c: Command): string {
  return buf.toString("latin1", c.at + 8, c.at + 24).replace(/\0+$/, "");
}

/**
 * Removes the signature of the Mach-O executable `file` in place. Returns false when it has none.
 * Throws on a file that is not a 64-bit little-endian Mach-O, or whose signature is not at its end.
 */
export function removeMachOSignature(file: string): boolean {
  const buf = fs.readFileSync(file);
  if (buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error(`${file}: not a 64-bit Mach-O executable`);
  const cmds = commands(buf);
  const sig = cmds.find((c) => c.cmd === LC_CODE_SIGNATURE);
  if (!sig) return false;
  const dataOff = buf.readUInt32LE(sig.at + 8);
  const dataSize = buf.readUInt32LE(sig.at + 12);
  if (dataOff + dataSize !== buf.length)
    throw new Error(`${file}: the code signature is not at the end of the file`);
  const linkedit = cmds.find((c) => c.cmd === LC_SEGMENT_64 && segmentName(buf, c) === "__LINKEDIT");
  if (!linkedit) throw new Error(`${file}: no __LINKEDIT segment`);
  const cmdsEnd = HEADER_SIZE + buf.readUInt32LE(20);
  // __LINKEDIT's file size (segment_command_64: fileoff at +40, filesize at +48), cut at the signature.
  const fileOff = Number(buf.readBigUInt64LE(linkedit.at + 40));
  buf.writeBigUInt64LE(BigInt(dataOff - fileOff), linkedit.at + 48);
  buf.copy(buf, sig.at, sig.at + sig.size, cmdsEnd);
  buf.fill(0, cmdsEnd - sig.size, cmdsEnd);
  buf.writeUInt32LE(cmds.length - 1, 16);
  buf.writeUInt32LE(cmdsEnd - HEADER_SIZE - sig.size, 20);
  fs.writeFileSync(file, buf.subarray(0, dataOff));
  return true;
}

/** PE32+ (`IMAGE_NT_OPTIONAL_HDR64_MAGIC`): the x64 executables. */
const PE32_PLUS = 0x20b;

/**
 * Removes the Authenticode signature of the PE32+ executable `file` in place. Returns false when it
 * has none. Throws on a file that is not PE32+, or whose certificate table is not at its end.
 */
export function removePeSignature(file: string): boolean {
  const buf = fs.readFileSync(file);
  const pe = buf.readUInt32LE(0x3c);
  if (buf.toString("latin1", pe, pe + 4) !== "PE\0\0") throw new Error(`${file}: not a PE executable`);
  // The optional header follows the 4-byte signature and the 20-byte COFF header.
  const opt = pe + 24;
  if (buf.readUInt16LE(opt) !== PE32_PLUS) throw new Error(`${file}: not a PE32+ executable`);
  // Data directories start at +112 in PE32+, 8 bytes each; the certificate table is the fifth.
  const dir = opt + 112 + 4 * 8;
  const [at, size] = [buf.readUInt32LE(dir), buf.readUInt32LE(dir + 4)];
  if (size === 0) return false;
  if (at + size !== buf.length)
    throw new Error(`${file}: the certificate table is not at the end of the file`);
  buf.writeUInt32LE(0, dir);
  buf.writeUInt32LE(0, dir + 4);
  fs.writeFileSync(file, buf.subarray(0, at));
  return true;
}
