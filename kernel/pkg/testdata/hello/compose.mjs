export default function (input) {
  return { greeting: `hello ${input.name}`.repeat(input.times) };
}
