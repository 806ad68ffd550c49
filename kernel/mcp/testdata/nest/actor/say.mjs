export default function (input) {
  return { act: input.act };
}
