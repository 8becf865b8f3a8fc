import type { Page } from 'playwright-core';

/**
 * The headless Chromium publisher the simulcast browser tests share: its fake camera as three VP8
 * simulcast encodings (with RTX) on one connection, and its fake microphone on another.
 */

/** Waits, in the page, until ICE gathering of `connection` completes (no trickle ICE). */
export const gathered = (connection: string) => `new Promise((resolve) => {
  if (${connection}.iceGatheringState === 'complete') resolve();
  ${connection}.addEventListener('icegatheringstatechange', () => ${connection}.iceGatheringState === 'complete' && resolve());
})`;

/** The publisher's video offer (three VP8 encodings) and, on a second connection, its audio offer. */
export async function publishOffers(page: Page): Promise<{ video: string; audio: string }> {
  return page.evaluate(`(async () => {
    const media = await navigator.mediaDevices.getUserMedia({
      audio: true,
      video: { width: 1280, height: 720, frameRate: 24 },
    });
    const peer = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    globalThis.peer = peer;
    const transceiver = peer.addTransceiver(media.getVideoTracks()[0], {
      direction: 'sendonly',
      sendEncodings: [
        { rid: 'l', scaleResolutionDownBy: 4, maxBitrate: 150000 },
        { rid: 'm', scaleResolutionDownBy: 2, maxBitrate: 400000 },
        { rid: 'h', maxBitrate: 1200000 },
      ],
    });
    transceiver.setCodecPreferences(RTCRtpSender.getCapabilities('video').codecs.filter((c) => /vp8|rtx/i.test(c.mimeType)));
    await peer.setLocalDescription(await peer.createOffer());
    const audioPeer = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    globalThis.audioPeer = audioPeer;
    audioPeer.addTransceiver(media.getAudioTracks()[0], { direction: 'sendonly' });
    await audioPeer.setLocalDescription(await audioPeer.createOffer());
    await Promise.all([${gathered('peer')}, ${gathered('audioPeer')}]);
    return { video: peer.localDescription.sdp, audio: audioPeer.localDescription.sdp };
  })()`);
}

/** Applies the SFU's answer to the page's `peer` (video) or `audioPeer` connection. */
export async function acceptAnswer(page: Page, connection: 'peer' | 'audioPeer', sdp: string): Promise<void> {
  await page.evaluate(
    `globalThis.${connection}.setRemoteDescription({ type: 'answer', sdp: ${JSON.stringify(sdp)} })`,
  );
}
