package badreg

type Code string

// Stray is declared outside an area file.
// Do: move it.
const Stray Code = "stray"
