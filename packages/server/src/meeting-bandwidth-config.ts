import { isSfuError, parseSfuOptions, type SfuOptionsInput } from '@collab-suite/webrtc-sfu';
import { z } from 'zod';

/**
 * The environment variables of the SFU's bandwidth estimation and layer allocation, each with the
 * SFU option it sets. Unset, the SFU's default applies; set, the SFU's own option schema checks it,
 * so the server refuses exactly what the SFU would.
 */
const variableOptions = {
  MEETING_BANDWIDTH_INITIAL_BITRATE: ['bandwidth', 'initialBitrate'],
  MEETING_BANDWIDTH_MIN_BITRATE: ['bandwidth', 'minBitrate'],
  MEETING_BANDWIDTH_MAX_BITRATE: ['bandwidth', 'maxBitrate'],
  MEETING_BANDWIDTH_INCREASE_PER_SECOND: ['bandwidth', 'increasePerSecond'],
  MEETING_BANDWIDTH_UPGRADE_HEADROOM: ['bandwidth', 'upgradeHeadroom'],
  MEETING_BANDWIDTH_UPGRADE_HOLD_MS: ['bandwidth', 'upgradeHoldMs'],
  MEETING_BANDWIDTH_AUDIO_RESERVE_BITRATE: ['bandwidth', 'audioReserveBitrate'],
  MEETING_BANDWIDTH_ALLOCATION_INTERVAL_MS: ['bandwidth', 'allocationIntervalMs'],
} as const satisfies Record<string, readonly ['bandwidth', string]>;

type BandwidthVariable = keyof typeof variableOptions;

const decimal = z.coerce
  .number({ message: 'expected a number' })
  .refine(Number.isFinite, 'expected a finite number')
  .optional();

/** Entries of the server's environment schema: a number each, ranges checked by {@link meetingBandwidthOptions}. */
export const meetingBandwidthVariables = Object.fromEntries(
  Object.keys(variableOptions).map((name) => [name, decimal]),
) as Record<BandwidthVariable, typeof decimal>;

/** The SFU's `bandwidth` options the variables set: only those given, the SFU defaults the rest. */
export type MeetingBandwidthOptions = NonNullable<SfuOptionsInput['bandwidth']>;

/**
 * Builds the SFU options from the parsed variables and checks them with the SFU's own schema.
 * Returns the options, or the problems as `VARIABLE: message (received "value")` lines.
 */
export function meetingBandwidthOptions(
  values: Partial<Record<BandwidthVariable, number | undefined>>,
  received: (name: string) => string,
): { options: MeetingBandwidthOptions } | { problems: string[] } {
  const bandwidth: Record<string, number> = {};
  for (const [name, [, option]] of Object.entries(variableOptions)) {
    const value = values[name as BandwidthVariable];
    if (value !== undefined) bandwidth[option] = value;
  }
  try {
    parseSfuOptions({ bandwidth });
    return { options: bandwidth };
  } catch (error) {
    if (!isSfuError(error) || error.code !== 'invalid_options') throw error;
    const issues = (error.details?.issues ?? []) as Array<{ path: string; message: string }>;
    return { problems: issues.map((issue) => problemOf(issue, received)) };
  }
}

/** One SFU option issue in the words of the variables: `bandwidth.minBitrate` is MEETING_BANDWIDTH_MIN_BITRATE. */
function problemOf(issue: { path: string; message: string }, received: (name: string) => string): string {
  const entries = Object.entries(variableOptions);
  const exact = entries.find(([, [section, option]]) => `${section}.${option}` === issue.path)?.[0];
  if (exact !== undefined) return `${exact}: ${issue.message} (received ${received(exact)})`;
  // A rule across options (minBitrate not above maxBitrate) is reported on the section.
  let message = issue.message;
  const named: string[] = [];
  for (const [name, [section, option]] of entries) {
    if (section !== issue.path || !new RegExp(`\\b${option}\\b`).test(message)) continue;
    message = message.replace(new RegExp(`\\b${option}\\b`, 'g'), name);
    named.push(`${name}=${received(name)}`);
  }
  return named.length > 0 ? `${message} (received ${named.join(', ')})` : `${issue.path}: ${message}`;
}
