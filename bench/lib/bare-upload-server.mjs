// The HTTP floor of an upload route: bare node:http that gathers the body, cuts the one part of the
// benchmark's own multipart body (its data lies between the first blank line and the last
// boundary) and answers what `render(bytes)` resolves to. No framework, no checks, no limits: no
// server on this machine can answer an upload faster.
import { createServer } from 'node:http';

/** Runs the floor server in this process; it prints the `server listening` line processes.mjs waits for. */
export function runBareUploadServer(render, contentType) {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const start = body.indexOf('\r\n\r\n') + 4;
      const end = body.lastIndexOf('\r\n--');
      const answer = await render(body.subarray(start, end));
      response.writeHead(200, { 'content-type': contentType, 'content-length': answer.length });
      response.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () =>
    console.log(JSON.stringify({ msg: 'server listening', port: server.address().port })),
  );
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
