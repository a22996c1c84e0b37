(ns mote-peer.ring-agents
  "ring on agents: P agents, agent j holding its index; the token is an action that passes
  v-1 to agent j+1 mod P, or puts j in main's inbox at 0."
  (:require [mote-peer.agents :as agents]
            [mote-peer.common :as c])
  (:import [java.util.concurrent LinkedBlockingQueue]))

(set! *warn-on-reflection* true)

(defn run
  [_ {:keys [t p]} {:keys [dispatch]}]
  (let [p (long p)
        report (LinkedBlockingQueue.)
        start (c/now)
        ring (vec (for [j (range p)] (agent j :error-handler agents/on-error)))
        token (fn token [j v]
                (if (pos? (long v))
                  (dispatch (ring (rem (inc (long j)) p)) token (dec (long v)))
                  (.put report j))
                j)]
    (dispatch (ring 0) token t)
    (let [idx (.take report)
          wall (- (c/now) start)]
      (when (not= idx (rem (long t) p))
        (c/fail! "ring: agent " idx " got 0, want " (rem (long t) p)))
      {:wall-ns wall})))
