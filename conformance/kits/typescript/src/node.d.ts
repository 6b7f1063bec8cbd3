// The little of Node 20 the kit uses, declared here so it builds with `typescript` alone
// (no @types/node to download).
declare module "node:fs" {
  export function readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  export function writeSync(fd: number, text: string): number;
}

declare const process: {
  env: Record<string, string | undefined>;
  versions: { node: string };
  stdout: { write: (chunk: unknown) => boolean };
  stderr: { write: (chunk: unknown) => boolean };
  exit(code: number): never;
};

declare var console: Record<"log" | "info" | "warn" | "error" | "debug", (...args: unknown[]) => void>;

declare class TextDecoder {
  constructor(label?: string);
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
