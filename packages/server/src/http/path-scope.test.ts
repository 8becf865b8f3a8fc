import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routerUnder } from './path-scope.js';

describe('routerUnder', () => {
  let url = '';
  let close = () => {};
  let entered: string[] = [];
  beforeAll(async () => {
    const inner = Router();
    inner.use((request, _response, next) => {
      entered.push(request.path);
      next();
    });
    inner.get('/rooms', (_request, response) => {
      response.send('rooms');
    });
    inner.get('/rooms/:id', (request, response) => {
      response.send(`room ${request.params.id}`);
    });
    inner.get('/a.b/c', (_request, response) => {
      response.send('dotted');
    });
    const app = express();
    app.use('/', routerUnder(['/rooms', '/a.b/'], inner));
    app.use((request, response) => {
      response.status(404).send(`fell through ${request.path}`);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  const get = async (path: string) => {
    entered = [];
    const response = await fetch(`${url}${path}`);
    return { status: response.status, text: await response.text(), entered };
  };

  it('lets a prefix itself and the paths below it through, ignoring case as Express routes do', async () => {
    expect(await get('/rooms')).toEqual({ status: 200, text: 'rooms', entered: ['/rooms'] });
    expect(await get('/rooms/')).toEqual({ status: 200, text: 'rooms', entered: ['/rooms/'] });
    expect(await get('/ROOMS/7')).toEqual({ status: 200, text: 'room 7', entered: ['/ROOMS/7'] });
    expect((await get('/a.b/c')).text).toBe('dotted');
  });

  it('sends other paths on without entering the router, whole segments only', async () => {
    for (const path of ['/', '/other', '/roomsx', '/room', '/axb/c', '/x/rooms']) {
      expect(await get(path)).toEqual({ status: 404, text: `fell through ${path}`, entered: [] });
    }
  });

  it('ignores the query string', async () => {
    expect((await get('/rooms?x=/other')).text).toBe('rooms');
    expect((await get('/other?next=/rooms')).entered).toEqual([]);
  });
});
