package errcode

// Authority: The authority a run is given: its document, the approval floor, limits, money and
// delegations.
const (
	// AuthorityDuplicateEntry: The authority document lists the same entry twice.
	// Do: Remove the repeated entry.
	AuthorityDuplicateEntry Code = "authority_duplicate_entry"

	// AuthorityInvalidJSON: The authority document is not valid JSON.
	// Do: Fix the JSON at the field the message names.
	AuthorityInvalidJSON Code = "authority_invalid_json"

	// AuthorityInvalidType: An authority field has the wrong JSON type.
	// Do: Give the field the type the message states.
	AuthorityInvalidType Code = "authority_invalid_type"

	// AuthorityInvalidValue: An authority field has a value runx refuses.
	// Do: Fix the field the message names.
	AuthorityInvalidValue Code = "authority_invalid_value"

	// AuthorityMissingField: A required authority field is missing.
	// Do: Add the field the message names.
	AuthorityMissingField Code = "authority_missing_field"

	// AuthorityPresetInvalid: A saved authority preset is not an authority document.
	// Do: Save the preset again with runx authority save.
	AuthorityPresetInvalid Code = "authority_preset_invalid"

	// AuthorityPresetNameInvalid: An authority preset name has characters it may not hold.
	// Do: Use lowercase letters, digits, '.', '-' and '_' (at most 64).
	AuthorityPresetNameInvalid Code = "authority_preset_name_invalid"

	// AuthorityPresetNotForWorkspace: The preset was saved for other workspaces.
	// Do: Save it in this workspace to use it here.
	AuthorityPresetNotForWorkspace Code = "authority_preset_not_for_workspace"

	// AuthorityPresetNotFound: No authority preset has that name.
	// Do: List presets with runx authority list.
	AuthorityPresetNotFound Code = "authority_preset_not_found"

	// AuthorityRecordInvalid: The authority recorded for the run does not parse.
	// Do: The run's records are damaged; start a new run.
	AuthorityRecordInvalid Code = "authority_record_invalid"

	// AuthorityTooLarge: The authority document is over its size ceiling.
	// Do: Shorten the document.
	AuthorityTooLarge Code = "authority_too_large"

	// AuthorityUnknownField: The authority document has a field runx does not know.
	// Do: Remove the field, or check its spelling.
	AuthorityUnknownField Code = "authority_unknown_field"

	// AuthorityUnsupported: An authority field this runx cannot enforce as stated; it is refused
	// rather than ignored.
	// Do: Remove the field the message names.
	AuthorityUnsupported Code = "authority_unsupported"

	// ChangeInvalid: A change given to the approval floor is malformed.
	// Do: Fix the change the message names.
	ChangeInvalid Code = "change_invalid"

	// ChildDepthLimitExceeded: A child run would nest deeper than the authority allows.
	// Do: Raise the depth limit in the authority, or call fewer levels of skills.
	ChildDepthLimitExceeded Code = "child_depth_limit_exceeded"

	// CostLimitExceeded: A call's price is more than what the run's money limit has left; nothing was
	// sent.
	// Do: Raise --max-spend, or make fewer paid calls.
	CostLimitExceeded Code = "cost_limit_exceeded"

	// CostQuoteUnknown: Under a money limit, a call whose price is unknown; an unknown price is never
	// counted as free.
	// Do: Declare the operation's cost, or run without a money limit.
	CostQuoteUnknown Code = "cost_quote_unknown"

	// DelegationNotCovered: A call on a delegated connector is not covered by any term of its
	// delegation.
	// Do: Add a term that covers the call, or make a call the delegation covers.
	DelegationNotCovered Code = "delegation_not_covered"

	// DelegationTermRequired: A call on a connector whose every call needs a term (the private
	// connector) is made under an authority that delegates it none.
	// Do: Give the run a delegation for the connector with --run-authority, or save one with runx
	// authority save and name it with --authority.
	DelegationTermRequired Code = "delegation_term_required"

	// DelegationWidens: A term of the run's delegation for a connector would widen what the link before
	// it grants: packages the run's packages do not cover (every call on that connector is refused), or
	// a verb the connector offers no operation of (the run is refused before it starts).
	// Do: Narrow the term: list only packages the run's packages cover and verbs the connector offers.
	DelegationWidens Code = "delegation_widens"

	// EffectsNoneRefused: The authority allows no effects and the step would have one.
	// Do: Grant the effect in the authority, or run a step without it.
	EffectsNoneRefused Code = "effects_none_refused"

	// FanoutLimitExceeded: A fan-out would start more items than the authority allows.
	// Do: Raise the fan-out limit in the authority, or fan out over fewer items.
	FanoutLimitExceeded Code = "fanout_limit_exceeded"

	// HostCeilingInvalid: A host ceiling is not a positive integer.
	// Do: Give a positive integer.
	HostCeilingInvalid Code = "host_ceiling_invalid"

	// PackageNotCovered: The authority does not cover the package the run would enter.
	// Do: Add the package to the authority's packages.
	PackageNotCovered Code = "package_not_covered"

	// SpendAmountInvalid: A money amount in the authority is not a whole number of micro-USD, 0 or
	// more.
	// Do: Give a whole number of micro-USD.
	SpendAmountInvalid Code = "spend_amount_invalid"

	// SpendLimitInvalid: --max-spend is not a dollar amount runx can hold exactly in micro-USD.
	// Do: Give a dollar amount with at most six decimals.
	SpendLimitInvalid Code = "spend_limit_invalid"

	// TurnStoreWriteRefused: A turn may not write to a store under this authority.
	// Do: Write through a step, or grant the write in the authority.
	TurnStoreWriteRefused Code = "turn_store_write_refused"
)
