/**
 * A loopback TCP port nothing listens on, for a server a test starts later or for a URL that
 * must not answer.
 *
 * @packageDocumentation
 */
import * as net from "node:net";

/**
 * A port nothing listens on right now, below Linux's ephemeral range (32768 and up). Every
 * emulator and server of the tests takes port 0, which the kernel picks from that range, so a
 * port from it could be another test file's by the time this one is used (seen with 5 workers).
 */
export async function unusedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
