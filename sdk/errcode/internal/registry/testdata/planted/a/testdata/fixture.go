package fixture

var _ = "thing_missing"
