import type { SfuStats } from '@collab-suite/webrtc-sfu';
import { type FeatureMetric, type MetricSample, readOncePerScrape } from '../metrics/feature-metric.js';

type Reader = (stats: SfuStats) => readonly MetricSample[];

const one =
  (key: keyof SfuStats): Reader =>
  (stats) => [{ value: stats[key] }];

const byMedia =
  (video: keyof SfuStats, audio: keyof SfuStats): Reader =>
  (stats) => [
    { labels: { media: 'video' }, value: stats[video] },
    { labels: { media: 'audio' }, value: stats[audio] },
  ];

/** The series of {@link sfuMetrics}: name, help, kind, labels and where each value comes from. */
const series: (Omit<FeatureMetric, 'read'> & { pick: Reader })[] = [
  {
    name: 'collab_sfu_sessions',
    help: 'Open SFU sessions (meeting participants with media).',
    kind: 'gauge',
    pick: one('sessions'),
  },
  {
    name: 'collab_sfu_published_streams',
    help: 'Video and screen streams published to the SFU now.',
    kind: 'gauge',
    pick: one('producers'),
  },
  {
    name: 'collab_sfu_forwardings',
    help: 'Streams the SFU forwards to one subscriber each, now.',
    kind: 'gauge',
    pick: one('consumers'),
  },
  {
    name: 'collab_sfu_sessions_opened_total',
    help: 'SFU sessions opened.',
    kind: 'counter',
    pick: one('sessionsOpened'),
  },
  {
    name: 'collab_sfu_forwarded_packets_total',
    help: 'RTP packets the SFU sent to participants: forwarded video and screen (retransmissions apart), and the audio mix.',
    kind: 'counter',
    labelNames: ['media'],
    pick: byMedia('videoPacketsForwarded', 'audioPacketsSent'),
  },
  {
    name: 'collab_sfu_forwarded_bytes_total',
    help: 'Bytes (RTP header and payload) of collab_sfu_forwarded_packets_total.',
    kind: 'counter',
    labelNames: ['media'],
    pick: byMedia('videoBytesForwarded', 'audioBytesSent'),
  },
  {
    name: 'collab_sfu_received_video_packets_total',
    help: 'RTP packets of published video and screen streams received.',
    kind: 'counter',
    pick: one('videoPacketsReceived'),
  },
  {
    name: 'collab_sfu_received_video_bytes_total',
    help: 'Bytes (RTP header and payload) of collab_sfu_received_video_packets_total.',
    kind: 'counter',
    pick: one('videoBytesReceived'),
  },
  {
    name: 'collab_sfu_repeated_video_packets_total',
    help: 'Received video packets that arrived twice (a sender padding its bandwidth probes with copies) and were forwarded once.',
    kind: 'counter',
    pick: one('videoPacketsRepeated'),
  },
  {
    name: 'collab_sfu_retransmitted_packets_total',
    help: 'Video packets resent to subscribers that reported them lost (NACK).',
    kind: 'counter',
    pick: one('retransmissions'),
  },
];

/**
 * The SFU's sessions and traffic on `/metrics`, from `stats` (the media worker's answer, read once
 * per scrape). Nothing is reported while the SFU does not answer.
 */
export function sfuMetrics(stats: () => Promise<SfuStats | undefined>): FeatureMetric[] {
  const read = readOncePerScrape(stats);
  return series.map(({ pick, ...metric }) => ({
    ...metric,
    async read() {
      const current = await read();
      return current === undefined ? [] : pick(current);
    },
  }));
}
