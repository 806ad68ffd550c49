export default function (input) {
  return { line: input.topic + ": " + input.text };
}
