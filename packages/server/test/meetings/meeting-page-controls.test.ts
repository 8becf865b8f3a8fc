import { describe, expect, it } from 'vitest';
// @ts-expect-error the meeting page is plain JavaScript without declarations; the calls are typed below.
import * as pageControls from '../../../../examples/meeting-web/controls.js';

interface Button {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
}
type Buttons = Record<'mic' | 'camera' | 'screen', Button>;

/** The functions of examples/meeting-web/controls.js, as the page calls them. */
const controls = pageControls as {
  toggleIds: (keyof Buttons)[];
  isPressed(button: Button): boolean;
  resetControls(buttons: Buttons): void;
  wantedMedia(buttons: Buttons): { microphone: boolean; camera: boolean; screen: boolean };
  connectionText(connection: string, state: string): string | undefined;
  stopReason(event: { type: string; reason?: string }): { text: string; restart: boolean };
  qualityForWidth(deviceWidth: number): 'low' | 'medium' | 'high';
};

/** A button as the page uses it: an attribute store. */
function fakeButton(pressed: boolean) {
  const attributes = new Map<string, string>([['aria-pressed', String(pressed)]]);
  return {
    getAttribute: (name: string) => attributes.get(name) ?? null,
    setAttribute: (name: string, value: string) => void attributes.set(name, value),
  };
}

describe('the meeting page controls', () => {
  it("asks for the smallest of the camera's 160/320/640 pixel layers a tile enlarges by at most a quarter", () => {
    const quality = (widths: number[]) => widths.map((width) => controls.qualityForWidth(width));
    expect(quality([96, 200])).toEqual(['low', 'low']);
    expect(quality([201, 400])).toEqual(['medium', 'medium']);
    expect(quality([401, 980])).toEqual(['high', 'high']);
    // At device pixel ratio 1 a grid column is 18rem (288 CSS pixels) or more: never the low layer,
    // and a column wider than 400 pixels gets the top one.
    expect(quality([288, 330, 588])).toEqual(['medium', 'medium', 'high']);
  });

  it('a leave resets every toggle, so the first click after the next join turns the camera on (not off)', () => {
    const buttons = { mic: fakeButton(true), camera: fakeButton(true), screen: fakeButton(true) };
    controls.resetControls(buttons);
    expect(controls.toggleIds.map((id) => controls.isPressed(buttons[id]))).toEqual([false, false, false]);
    // The page's toggle turns on what is not pressed.
    expect(!controls.isPressed(buttons.camera)).toBe(true);
  });

  it('remembers what was on for a rejoin', () => {
    const buttons = { mic: fakeButton(false), camera: fakeButton(true), screen: fakeButton(false) };
    expect(controls.wantedMedia(buttons)).toEqual({ microphone: false, camera: true, screen: false });
  });

  it('says why media stopped: a failed media server (restart it) or a stop (do not)', () => {
    expect(controls.stopReason({ type: 'MEETING_STOPPED', reason: 'media_server_failed' })).toEqual({
      text: 'The media server of this meeting failed.',
      restart: true,
    });
    expect(controls.stopReason({ type: 'MEETING_STOPPED' })).toMatchObject({ restart: false });
    expect(controls.connectionText('video', 'disconnected')).toMatch(/camera connection was interrupted/);
    expect(controls.connectionText('watching', 'failed')).toMatch(/incoming video connection failed/);
    expect(controls.connectionText('audio', 'connected')).toBeUndefined();
  });
});
