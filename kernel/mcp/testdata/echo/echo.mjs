export default function (input) {
  return { echo: Array(input.times).fill(input.message).join(" ") };
}
