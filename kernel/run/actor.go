package run

// LocalActor is the actor of a run no host delegated: the person operating
// this project. What a run's actor owns beyond the run (a process it
// started) is reached by any later run of the same actor in the project.
const LocalActor = "local"

// actor names whose run this is, for the capabilities that keep state past
// a run (told in every call's binding). runx admits no host-delegated
// actor_ref yet, so every run here is the local person's.
func (rc *runCtx) actor() string { return LocalActor }
