package badreg

// Things: codes of things.
const (
	// ThingMissing: a thing is missing.
	// Do: add it.
	ThingMissing Code = "thing_missing"

	// ThingAbsent: a thing is absent.
	// Do: add it.
	ThingAbsent Code = "thing_missing"

	// ThingBad: a thing is bad.
	ThingBad Code = "thing_bad"

	// a thing is odd, said without its name.
	// Do: fix it.
	ThingOdd Code = "thing_odd"

	// ThingCamel: spelled in CamelCase.
	// Do: respell it.
	ThingCamel Code = "ThingCamel"
)
