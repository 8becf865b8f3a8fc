import { afterEach, describe, expect, it, vi } from 'vitest';
import { UdpTransport } from 'werift';
import { VideoTestPublisher, VideoTestSubscriber, waitFor } from '../src/testing/index.js';
import { offerVideoSubscription, publishVideo, sfuTestBed } from './support/sfu-test-bed.js';

// dgram reports some failures as an 'error' event on the socket: a send without a callback whose
// address lookup fails, a failed recvmsg. With no listener, emitting it throws and ends the process.
// (A send to an IP address that fails, say EHOSTUNREACH, is dropped silently by Node instead.)

const bed = sfuTestBed();

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every werift UDP transport created from now on: the SFU's and the test clients' alike. */
function recordUdpTransports(): UdpTransport[] {
  const transports: UdpTransport[] = [];
  const init = UdpTransport.init.bind(UdpTransport);
  vi.spyOn(UdpTransport, 'init').mockImplementation(async (...args) => {
    const transport = await init(...args);
    transports.push(transport);
    return transport;
  });
  return transports;
}

describe('an error event on a UDP socket', () => {
  it('is logged and media keeps flowing, on publish and subscribe connections', async () => {
    const transports = recordUdpTransports();
    const router = bed.start().createRouter('socket-errors');
    const publisher = bed.track(new VideoTestPublisher());
    await publishVideo(router, 'alice', publisher);
    publisher.start({ bitrate: 300_000 });
    const subscriber = bed.track(new VideoTestSubscriber());
    const offer = await offerVideoSubscription(router, 'bob', 'alice');
    await router.requireSession('bob').acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    const mid = offer.streams.find((stream) => stream.participantId === 'alice')?.mid ?? '';
    await waitFor(() => subscriber.count(mid) >= 30, 'video at the subscriber');
    // The publisher's and the subscriber's connections, each with a client and an SFU side.
    expect(transports.length).toBeGreaterThanOrEqual(4);

    const unreachable = Object.assign(new Error('send EHOSTUNREACH 127.0.0.1:9'), {
      code: 'EHOSTUNREACH',
      syscall: 'send',
    });
    for (const transport of transports) transport.socket.emit('error', unreachable);

    const received = subscriber.count(mid);
    await waitFor(() => subscriber.count(mid) >= received + 30, 'video forwarded after the errors');
    expect(publisher.peer.connectionState).toBe('connected');
    expect(subscriber.peer.connectionState).toBe('connected');
  });

  it('from a failed bind rejects the transport instead of leaving it waiting', async () => {
    const taken = await UdpTransport.init('udp4', { interfaceAddresses: { udp4: '127.0.0.1' } });
    await expect(
      UdpTransport.init('udp4', { port: taken.port, interfaceAddresses: { udp4: '127.0.0.1' } }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await taken.close();
  });
});
