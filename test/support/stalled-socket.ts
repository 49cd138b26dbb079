/**
 * A client that stops reading, on a raw socket to 127.0.0.1: it sends one HTTP request, reads
 * until `enough` of the response has arrived (its head, by default), then reads nothing more
 * while holding the connection open, as a suspended process does.
 */
import net from 'node:net';

export async function stalledRequest(
  port: number,
  head: string,
  body = '',
  enough: (received: string) => boolean = (r) => r.includes('\r\n\r\n'),
): Promise<{ socket: net.Socket; received: string }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`the connection closed before the response arrived: ${received}`)));
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      received += c;
      if (enough(received)) {
        socket.removeAllListeners('data');
        socket.pause();
        resolve();
      }
    });
    socket.write(`${head}Host: 127.0.0.1:${port}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  return { socket, received };
}
