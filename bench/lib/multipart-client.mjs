// HTTP client pieces the benchmarks share: a multipart body encoded once (so the client costs little
// CPU per request) and a POST over a keep-alive agent that resolves with the response body.
import { Agent, request } from 'node:http';

const BOUNDARY = 'bench-boundary-5d41402abc4b2a76';

/** One multipart body whose `file` field holds `bytes`. */
export function multipartBody(
  bytes,
  { fileName = 'upload.bin', contentType = 'application/octet-stream' } = {},
) {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

/** A keep-alive client; `post(url, body)` sends a body made by {@link multipartBody}. */
export function createMultipartClient({ maxSockets }) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const post = (url, body) =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
            'content-length': body.length,
          },
        },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            const data = Buffer.concat(chunks);
            if (response.statusCode === 200) resolve(data);
            else reject(new Error(`HTTP ${response.statusCode}: ${data.toString('utf8').slice(0, 200)}`));
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  return { post, close: () => agent.destroy() };
}
