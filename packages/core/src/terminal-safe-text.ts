/**
 * Text from an upstream (a status message, a result, a log line) made safe to print on a terminal. A job's
 * own output may hold escape sequences that set the window title, write the clipboard (OSC 52) or clear the
 * screen, a carriage return that draws one line over another, or bidi overrides that show text in another
 * order than it reads: on a person's terminal these can make an approval question say something else.
 */

// The introducers of escape sequences, as ESC + a byte and as the 8-bit C1 control of the same meaning.
// OSC, DCS, SOS, PM and APC run to a string terminator (BEL for OSC, ESC \ or U+009C); an unterminated one
// would swallow the rest of the text on a terminal, so it is removed to the end.
const escapeSequence = new RegExp(
  [
    // OSC, DCS, SOS, PM, APC: a string up to its terminator (or the end).
    String.raw`(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)`,
    // CSI: parameters, intermediates, one final byte.
    String.raw`(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]`,
    // Any other ESC sequence: intermediates and one final byte (ESC ( B, ESC 7, ESC c).
    String.raw`\u001b[ -/]*[0-~]`,
  ].join("|"),
  "g",
);

// What is left after the sequences: C0 controls but tab and newline, DEL, C1 controls, bidi embeddings,
// overrides and isolates.
const unsafeCharacter = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as a terminal may show it: escape sequences removed, a CRLF read as a newline, and every other
 * control character or bidi control shown as a visible stand-in (␍ for a carriage return, ␛ for a lone
 * ESC, `<U+202E>` for a C1 or bidi control), so that what a person reads is what the text says.
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(escapeSequence, "").replace(unsafeCharacter, visibleStandIn);
}

/**
 * `value` as one line of JSON that is safe to print on a terminal and reads back to the same value:
 * JSON.stringify escapes C0 controls already; DEL, C1 and bidi controls (and the line separators
 * U+2028/U+2029) are written as `\uXXXX` escapes too.
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, jsonEscape);
}

function visibleStandIn(character: string): string {
  const code = character.charCodeAt(0);
  // Control Pictures (U+2400…U+241F, U+2421 for DEL) stand for C0 controls in one cell each.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

function jsonEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
