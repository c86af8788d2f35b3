// The build's bundles are read at every start, and an ASCII file is decoded several times faster than
// UTF-8 (packages/core/src/cached-script.ts: 2 ms instead of 9 for the command line's). esbuild escapes
// every non-ASCII character of code (its default charset) but keeps comments as written, so what is left
// is in comments: each such character becomes "?". A line whose first one is not after the start of a
// comment fails the build instead, since then the guess is wrong and a "?" could change what the code does.
const nonAscii = /[^\x00-\x7f]/u;

export function asciiOnly(text, fileName) {
  let inBlockComment = false;
  const lines = text.split("\n").map((line, index) => {
    const first = line.search(nonAscii);
    const blockStartsHere = /^\s*\/\*/.test(line);
    const inComment = inBlockComment || blockStartsHere || /^\s*\*/.test(line) || line.slice(0, first).includes("//");
    if (blockStartsHere && !line.includes("*/")) inBlockComment = true;
    else if (inBlockComment && line.includes("*/")) inBlockComment = false;
    if (first === -1) return line;
    if (!inComment) throw new Error(`${fileName}:${index + 1}: a non-ASCII character outside a comment`);
    return line.replace(new RegExp(nonAscii.source, "gu"), "?");
  });
  return lines.join("\n");
}
