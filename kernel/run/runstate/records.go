package runstate

// CodeJournalRecordInvalid stops a run whose journal holds a record that
// does not decode: replaying it as empty would take a step's result, error
// or receipt commitment to be other than what was recorded.
const CodeJournalRecordInvalid = "journal_record_invalid"
