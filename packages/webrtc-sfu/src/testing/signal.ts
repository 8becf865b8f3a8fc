/** Root-mean-square amplitude of PCM samples. Pure. */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/**
 * Share of the signal's energy at `frequency` (Goertzel), between 0 and 1: a pure tone at that
 * frequency gives close to 1, silence or another tone close to 0. Pure.
 */
export function toneShare(samples: Int16Array, frequency: number, sampleRate: number): number {
  if (samples.length === 0) return 0;
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  let energy = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
    energy += sample * sample;
  }
  const power =
    previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return energy === 0 ? 0 : Math.min(1, (2 * power) / (samples.length * energy));
}

/** `count` samples of a sine at `frequency`, starting at sample `offset`. Pure. */
export function sine(
  count: number,
  frequency: number,
  sampleRate: number,
  amplitude: number,
  offset = 0,
): Int16Array {
  const samples = new Int16Array(count);
  for (let index = 0; index < count; index += 1) {
    samples[index] = Math.round(
      amplitude * Math.sin((2 * Math.PI * frequency * (offset + index)) / sampleRate),
    );
  }
  return samples;
}

/**
 * The median {@link toneShare} of the last `count` decoded frames, leaving out silent ones (rms at
 * most 200): the audio bridge mixes a speaker whose packet came late as a frame of silence, which
 * says nothing about what it mixed, and joins across such gaps break a tone's phase. Pure.
 */
export function recentToneShare(
  frames: readonly Int16Array[],
  frequency: number,
  sampleRate: number,
  count = 40,
): number {
  const shares = frames
    .slice(-count)
    .filter((frame) => rms(frame) > 200)
    .map((frame) => toneShare(frame, frequency, sampleRate))
    .sort((left, right) => left - right);
  return shares[Math.floor(shares.length / 2)] ?? 0;
}
