export default function (input) {
  return { loud: input.word.toUpperCase() + (input.act ? " (" + input.act + ")" : "") };
}
