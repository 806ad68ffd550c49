export default function (input) {
  return { published: input.summary };
}
