// The page's toggle buttons, the words it shows and the quality its tiles ask for, apart from the
// rest so that tests can run them without a browser: buttons are anything with getAttribute/setAttribute.

/** The toggle buttons, by id: microphone, camera, screen. */
export const toggleIds = ['mic', 'camera', 'screen'];

/** Whether a toggle button is pressed. */
export function isPressed(button) {
  return button.getAttribute('aria-pressed') === 'true';
}

/** Sets a toggle button pressed or not. */
export function setPressed(button, pressed) {
  button.setAttribute('aria-pressed', String(pressed));
}

/**
 * Sets every toggle button to not pressed: after a leave nothing is published, so the first click
 * after the next join must turn things on, not off.
 */
export function resetControls(buttons) {
  for (const id of toggleIds) if (buttons[id]) setPressed(buttons[id], false);
}

/** What the user had on, read from the buttons, to restore after a rejoin. */
export function wantedMedia(buttons) {
  return {
    microphone: buttons.mic ? isPressed(buttons.mic) : true,
    camera: buttons.camera ? isPressed(buttons.camera) : false,
    screen: buttons.screen ? isPressed(buttons.screen) : false,
  };
}

const connectionNames = {
  audio: 'audio',
  video: 'camera',
  screen: 'screen share',
  watching: 'incoming video',
};

/** A sentence about one media connection's state, or undefined when there is nothing to say. */
export function connectionText(connection, state) {
  const name = connectionNames[connection] ?? connection;
  if (state === 'disconnected') return `The ${name} connection was interrupted; reconnecting…`;
  if (state === 'failed') return `The ${name} connection failed; restarting it…`;
  return undefined;
}

/** Why the meeting stopped, from a MEETING_STOPPED event, and whether the page should start it again. */
export function stopReason(event) {
  if (event.reason === 'media_server_failed')
    return { text: 'The media server of this meeting failed.', restart: true };
  return { text: 'The meeting was stopped.', restart: false };
}

/**
 * The quality a tile this many device pixels wide needs: the smallest of the page's camera layers
 * (160, 320 and 640 pixels wide for its 640x360 capture) that the tile shows enlarged by at most a
 * quarter. A grid column is at least 18rem (288 CSS pixels), so on a screen of device pixel ratio
 * 1 every tile asks for medium or high, and only a tile made narrower than that asks for low.
 */
export const qualityForWidth = (width) => (width <= 200 ? 'low' : width <= 400 ? 'medium' : 'high');
