export function greeting(message, name) {
  return `${message}, ${name}`;
}
