export default function (input) {
  return { notes: "notes on " + input.topic + ": " + "é".repeat(40000) };
}
