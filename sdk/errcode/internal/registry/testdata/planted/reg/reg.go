package reg

type Code string

// The registry itself spells its codes.
const ThingMissing Code = "thing_missing"
