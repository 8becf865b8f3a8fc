// Starts the example on PORT (default 3100), on loopback unless HOST says otherwise.
import { buildApp } from './app.mjs';

const app = await buildApp({ logger: true, publicUrl: process.env.PUBLIC_URL });
await app.listen({ port: Number(process.env.PORT ?? 3100), host: process.env.HOST ?? '127.0.0.1' });
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void app.close());
