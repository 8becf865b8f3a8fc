import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';

/** What {@link framesNotDescribed} reads of an AsyncAPI document. */
export interface EventsDescription {
  channels: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, object> };
}

/** `GET /asyncapi.json` of a running server. */
export async function servedAsyncApi(baseUrl: string): Promise<EventsDescription> {
  return (await (await fetch(`${baseUrl}/asyncapi.json`)).json()) as EventsDescription;
}

/**
 * Checks frames received on `/events` against an AsyncAPI document: each frame's `type` names a
 * message of the channel, and the frame matches that message's payload schema. Returns one line per
 * frame that does not, empty when all do.
 */
export function framesNotDescribed(document: EventsDescription, frames: readonly object[]): string[] {
  const ajv = new Ajv({ allErrors: true, strict: true });
  formatsPlugin.default(ajv);
  const validators = new Map<string, ValidateFunction>();
  const messages = (document.channels.events?.messages ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const frame of frames) {
    const type = String((frame as { type?: unknown }).type);
    const schema = document.components.schemas[type];
    if (!(type in messages) || schema === undefined) {
      problems.push(`${type}: no message of that name in /asyncapi.json`);
      continue;
    }
    let validate = validators.get(type);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      validators.set(type, validate);
    }
    if (!validate(frame))
      problems.push(`${type}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(frame)}`);
  }
  return problems;
}
