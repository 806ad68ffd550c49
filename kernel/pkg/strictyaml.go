package pkg

// maxYAMLDepth bounds nesting so a hostile file cannot make the conversion
// recurse without limit; no real profile comes close.
const maxYAMLDepth = 128
