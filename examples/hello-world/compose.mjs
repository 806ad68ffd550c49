import { greeting } from "./greeting.mjs";

export default function compose(input) {
  return { message: input.message, greeting: greeting(input.message, input.name) };
}
