export default async function (ctx) { return {}; }
