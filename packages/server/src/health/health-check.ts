/** What one dependency reports. */
export interface HealthStatus {
  live: boolean;
  ready: boolean;
  /** Free-form facts shown by `/health/` (instances, queue length...). */
  details?: Record<string, unknown>;
}

/** A dependency whose state the health routes report. */
export interface HealthCheck {
  name: string;
  /** When true, `/health/ready/` fails while this dependency is not ready. */
  required: boolean;
  /** Status `/health/ready/` answers while this required dependency is not ready. @default 502 */
  unavailableStatus?: 429 | 502 | 503;
  /** Message `/health/ready/` answers while this dependency is not ready. */
  unavailableMessage?: string;
  check(): Promise<HealthStatus>;
}
