// What a tool raised. parcall scripts tools as Python would raise: `message` is Python's
// str() of the exception (`'x'`, quotes included, for KeyError('x'); empty for one raised
// with no argument), `pythonClass` its class and `args` its arguments.
import type { Json } from "./json.js";

export class ToolError extends Error {
  constructor(message: string, readonly pythonClass = "RuntimeError", readonly args: Json[] = [message]) {
    super(message);
    this.name = pythonClass;
  }
}
