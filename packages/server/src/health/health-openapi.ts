import type { OpenApiFragment } from '../openapi/openapi-document.js';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** The health routes and `/metrics`, as the OpenAPI document lists them. */
export const healthOpenApi: OpenApiFragment = {
  tags: [{ name: 'health', description: 'Liveness, readiness, dependencies and metrics of this server.' }],
  paths: {
    '/health/': {
      get: {
        tags: ['health'],
        operationId: 'getHealth',
        summary: 'Every dependency with its state; ready when every required one is',
        security: [],
        responses: {
          200: {
            description: 'The dependencies.',
            ...json({
              type: 'object',
              properties: {
                live: { type: 'boolean' },
                ready: { type: 'boolean' },
                dependencies: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      name: { type: 'string' },
                      required: { type: 'boolean' },
                      live: { type: 'boolean' },
                      ready: { type: 'boolean' },
                      details: { type: 'object' },
                    },
                    required: ['name', 'required', 'live', 'ready'],
                  },
                },
              },
              required: ['live', 'ready', 'dependencies'],
            }),
          },
        },
      },
    },
    '/health/ready/': {
      get: {
        tags: ['health'],
        operationId: 'getHealthReady',
        summary: 'Ready to serve: 200, or the status of the first required dependency that is not',
        security: [],
        responses: {
          200: {
            description: 'Ready.',
            ...json({ type: 'object', properties: { ready: { type: 'boolean' } } }),
          },
          429: { description: 'A required dependency is missing (e.g. LibreOffice not installed).' },
          502: { description: 'A required dependency does not answer.' },
        },
      },
    },
    '/health/live/': {
      get: {
        tags: ['health'],
        operationId: 'getHealthLive',
        summary: 'The process serves requests',
        security: [],
        responses: {
          200: {
            description: 'Live.',
            ...json({ type: 'object', properties: { live: { type: 'boolean' } } }),
          },
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['health'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (admin token unless METRICS_PUBLIC=true)',
        security: [{ bearer: [] }, { cookie: [] }, {}],
        responses: {
          200: {
            description: 'Prometheus text format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          401: { description: 'No token.' },
          403: { description: 'Not an administrator.' },
        },
      },
    },
  },
};
