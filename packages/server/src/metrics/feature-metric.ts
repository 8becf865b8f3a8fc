import { Counter, Gauge, type Registry } from 'prom-client';

/** One value of a {@link FeatureMetric}, with its labels. */
export interface MetricSample {
  labels?: Record<string, string>;
  value: number;
}

/**
 * A series a feature reports on `/metrics` beside its health details, read at each scrape. Features
 * that report the same name (the chat and SAML database pools) share one metric: their samples are
 * added to it, so their labels must tell them apart.
 */
export interface FeatureMetric {
  /** Prometheus name; counters end in `_total`. */
  name: string;
  help: string;
  /** `counter` for totals that only grow (a restart may reset them), `gauge` for levels. */
  kind: 'gauge' | 'counter';
  labelNames?: readonly string[];
  /** The values now; an empty list when there is nothing to report (e.g. the media worker is away). */
  read(): Promise<readonly MetricSample[]> | readonly MetricSample[];
}

/**
 * Wraps `read` so that every call made during one scrape shares one reading: several metrics built
 * from one source (the media worker's statistics) ask it once.
 */
export function readOncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => {
      setImmediate(() => {
        reading = undefined;
      });
    });
    return reading;
  };
}

/** Registers the features' metrics, one prom-client metric per name. */
export function registerFeatureMetrics(registry: Registry, metrics: readonly FeatureMetric[]): void {
  const byName = new Map<string, FeatureMetric[]>();
  for (const metric of metrics) byName.set(metric.name, [...(byName.get(metric.name) ?? []), metric]);
  for (const [name, sources] of byName) {
    const [first] = sources;
    if (first === undefined) continue;
    const readAll = async () => (await Promise.all(sources.map((source) => source.read()))).flat();
    const common = { name, help: first.help, labelNames: first.labelNames ?? [], registers: [registry] };
    if (first.kind === 'gauge') {
      new Gauge({
        ...common,
        async collect() {
          this.reset();
          for (const sample of await readAll()) this.set(sample.labels ?? {}, sample.value);
        },
      });
    } else {
      new Counter({
        ...common,
        async collect() {
          this.reset();
          for (const sample of await readAll()) this.inc(sample.labels ?? {}, sample.value);
        },
      });
    }
  }
}
