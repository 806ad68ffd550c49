package pkg

// maxYAMLDepth bounds nesting so a hostile file cannot make the conversion
// recurse without limit; no real profile comes close.
const maxYAMLDepth = 128

// MaxYAMLBytes bounds the YAML text handed to the parser (a run.yaml, a
// tests/*.yaml, a connector.yaml, SKILL.md front matter). The parser's
// tokens cost up to ~250 bytes per input byte, so this keeps the worst file
// to tens of megabytes; the largest maintained file is under 5 KiB.
const MaxYAMLBytes = 256 << 10

// maxYAMLMappingKeys bounds the keys of one block mapping. goccy's parser
// reads each further key of a block mapping one call deeper and copies the
// keys after it at every level, so n keys cost n²/2 copies: 16,000 keys
// (192 KB) allocate a gigabyte and 87,000 take 30 GB and a minute. Flow
// mappings and sequences are linear and are not bounded here.
const maxYAMLMappingKeys = 1024
