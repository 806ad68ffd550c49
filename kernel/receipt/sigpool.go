package receipt

import (
	"runtime"
	"sync"
)

// sigPool checks signatures off the walk. An ed25519 verification is the
// largest single cost of checking a receipt and needs nothing from the rest
// of the tree, so it runs on the other cores while the walk reads ahead.
type sigPool struct {
	jobs     chan sigJob
	wg       sync.WaitGroup
	problems *problemSet
}

type sigJob struct {
	seq  int
	id   string
	body []byte
	sig  Signature
}

// sigQueue bounds the jobs waiting, and so the receipt bodies held for them,
// whatever the tree's shape.
const sigQueue = 64

func startSigPool(problems *problemSet) *sigPool {
	p := &sigPool{jobs: make(chan sigJob, sigQueue), problems: problems}
	for range max(1, runtime.GOMAXPROCS(0)) {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

func (p *sigPool) work() {
	defer p.wg.Done()
	for j := range p.jobs {
		if _, err := checkSignature(j.body, j.sig); err != nil {
			p.problems.add(j.seq, stageSignature, true, j.id, CodeSignatureInvalid, err.Error())
		}
	}
}

func (p *sigPool) check(j sigJob) { p.jobs <- j }

// wait returns once every submitted signature has been checked.
func (p *sigPool) wait() {
	close(p.jobs)
	p.wg.Wait()
}
