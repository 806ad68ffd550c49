package jsworker

// goldenSeed is Seed(sha256:0…0, {"a":2,"b":1}).
const goldenSeed int64 = 7332300224918934845
