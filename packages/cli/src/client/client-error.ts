import { exitCodes } from "./exit-codes.js";

/** A failure of the client itself (connection, a refused request, bad input for a tool): exit code 4. */
export class ClientError extends Error {
  readonly exitCode: number = exitCodes.clientError;
}
