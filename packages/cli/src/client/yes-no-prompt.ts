import { Prompt, isCancel } from "@clack/core";
import { S_BAR, S_BAR_END, S_RADIO_ACTIVE, S_RADIO_INACTIVE, symbol } from "@clack/prompts";
import { styleText } from "node:util";

/**
 * A yes/no question (an approval) whose arrows move and never toggle: ← and ↑ go to Yes, → and ↓ to No,
 * and pressing one twice stays where it is. The prompts library's confirm flips on any arrow, so → pressed
 * "to be sure of No" selected Yes, and it starts on Yes: here the answer starts on No unless the form gives
 * a default, and Yes needs a key that means it (an arrow to it, or y).
 */

export interface YesNoOptions {
  message: string;
  /** Where the answer starts; No unless the form says otherwise. */
  initialValue?: boolean;
  output: NodeJS.WriteStream;
  signal?: AbortSignal;
}

/** The answer, or "interrupted" for Ctrl-C, Esc or the signal. */
export async function askYesNo(options: YesNoOptions): Promise<boolean | "interrupted"> {
  const prompt = new Prompt<boolean>(
    {
      output: options.output,
      ...(options.signal ? { signal: options.signal } : {}),
      render() {
        return renderYesNo(options.message, this.state, this.value === true);
      },
    },
    false,
  );
  prompt.value = options.initialValue ?? false;
  prompt.on("cursor", (direction) => {
    if (direction === "left" || direction === "up") prompt.value = true;
    if (direction === "right" || direction === "down") prompt.value = false;
  });
  // y or n answers at once; the prompt's own key handling then submits it.
  prompt.on("confirm", (yes) => {
    prompt.value = yes;
    prompt.state = "submit";
  });
  const answer = await prompt.prompt();
  return isCancel(answer) ? "interrupted" : answer === true;
}

function renderYesNo(message: string, state: string, yes: boolean): string {
  const bar = styleText("gray", S_BAR);
  const head = `${bar}\n${symbol(state as never)}  ${message.split("\n").join(`\n${bar}  `)}\n`;
  const chosen = yes ? "Yes" : "No";
  if (state === "submit") return `${head}${bar}  ${styleText("dim", chosen)}`;
  if (state === "cancel") return `${head}${bar}  ${styleText(["strikethrough", "dim"], chosen)}\n${bar}`;
  const radio = (label: string, selected: boolean) =>
    selected
      ? `${styleText("green", S_RADIO_ACTIVE)} ${label}`
      : `${styleText("dim", S_RADIO_INACTIVE)} ${styleText("dim", label)}`;
  const cyanBar = styleText("cyan", S_BAR);
  return `${head}${cyanBar}  ${radio("Yes", yes)} / ${radio("No", !yes)}  ${styleText("dim", "(←/→, y/n, Enter)")}\n${styleText("cyan", S_BAR_END)}\n`;
}
