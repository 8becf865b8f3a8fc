import { request } from 'node:http';

/** A raw answer: status, headers and the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request through node:http, headers exactly as given (fetch would refuse to forge `Origin`
 * or `Sec-Fetch-Site`, which is what a browser sends and these tests replay).
 */
export function send(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The Cookie header of a browser holding `token`. */
export const cookieOf = (token: string) => `ZM_AUTH_TOKEN=${token}`;
