(ns mote-peer.ring
  "ring on core.async: P go blocks in a ring, one token."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn- node
  "Process j: passes v-1 on for every token v > 0, reports j to main when it gets 0."
  [j in next report]
  (a/go-loop []
    (when-some [v (a/<! in)]
      (if (pos? (long v))
        (a/>! next (dec (long v)))
        (a/>! report j))
      (recur))))

(defn run
  "Each link has room for one token. Only one message is ever in flight, so a larger
  buffer changes nothing, and with none a ring of one (p=1) would wait on itself."
  [_ {:keys [t p]} _]
  (let [p (long p)
        start (c/now)
        links (vec (repeatedly p #(a/chan 1)))
        report (a/chan 1)]
    (dotimes [j p] (node j (links j) (links (rem (inc j) p)) report))
    (a/>!! (links 0) t)
    (let [idx (a/<!! report)
          wall (- (c/now) start)]
      (run! a/close! links)
      (when (not= idx (rem (long t) p))
        (c/fail! "ring: process " idx " got 0, want " (rem (long t) p)))
      {:wall-ns wall})))
