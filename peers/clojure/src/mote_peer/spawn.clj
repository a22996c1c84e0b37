(ns mote-peer.spawn
  "spawn on core.async: main starts K go blocks one after another; each sends `done` to main
  and ends; main then takes K replies."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn run
  "Main's reply channel holds all K replies (a mailbox), so every go block ends at once."
  [_ {:keys [k]} _]
  (let [k (long k)
        replies (a/chan k)
        start (c/now)]
    (dotimes [_ k] (a/go (a/>! replies :done)))
    (let [got (loop [got 0] (if (and (< got k) (a/<!! replies)) (recur (inc got)) got))
          wall (- (c/now) start)]
      (when (not= got k) (c/fail! "spawn: " got " replies, want " k))
      {:wall-ns wall})))
