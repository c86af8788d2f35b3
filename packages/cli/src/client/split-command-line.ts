/**
 * Splits `--stdio "<command> <args…>"` into a command and its arguments the way a POSIX shell would for
 * plain words: whitespace separates, single quotes keep everything, double quotes keep everything but
 * `\"` and `\\`, a backslash outside quotes escapes the next character. No variables, globs or pipes: the
 * command is spawned without a shell.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index++) {
    const character = line[index]!;
    if (quote === "'") {
      if (character === "'") quote = undefined;
      else word += character;
    } else if (quote === '"') {
      if (character === '"') quote = undefined;
      else if (character === "\\" && (line[index + 1] === '"' || line[index + 1] === "\\")) word += line[++index];
      else word += character;
    } else if (character === "'" || character === '"') {
      quote = character;
      inWord = true;
    } else if (character === "\\" && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(character)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += character;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
