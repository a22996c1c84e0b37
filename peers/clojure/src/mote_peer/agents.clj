(ns mote-peer.agents
  "How agent actions are dispatched. `send` queues an action on Clojure's agent executor (a
  fixed pool of cores + 2 threads unless replaced); `send-off` on its unbounded pool meant
  for blocking actions. `set-agent-send-executor!` replaces what `send` uses: the
  chain-of-relays write-up found a work-stealing pool fastest, a small fixed pool second."
  (:import [java.util.concurrent Executors]))

(set! *warn-on-reflection* true)

(defn dispatcher
  "`send`, or `send-off` when `off` is 1."
  [off]
  (if (= 1 off) send-off send))

(defn use-executor!
  "Makes `send` run actions on a work-stealing pool (ForkJoinPool, one thread per core)
  when `pool` is 0, else on a fixed pool of `pool` threads."
  [^long pool]
  (set-agent-send-executor!
   (if (zero? pool)
     (Executors/newWorkStealingPool)
     (Executors/newFixedThreadPool pool))))

(defn on-error
  "The error handler every agent here gets: an action that throws is a bug in the program,
  so report it and exit rather than leave main waiting for a message that will not come."
  [_agent ^Throwable e]
  (binding [*out* *err*]
    (println "ERROR agent action failed:" (str e))
    (flush))
  (System/exit 1))
