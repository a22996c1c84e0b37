(ns mote-peer.pingpong
  "pingpong on core.async: go blocks A and B, R round trips, then A reports to main."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn run
  "Both inboxes are unbuffered: each side waits for the other's answer anyway."
  [_ {:keys [r]} _]
  (let [r (long r)
        start (c/now)
        to-a (a/chan)
        to-b (a/chan)
        report (a/chan 1)]
    (a/go-loop [] ; B
      (when-some [i (a/<! to-b)]
        (a/>! to-a i)
        (recur)))
    (a/go-loop [i 0 bad 0] ; A
      (if (< i r)
        (do (a/>! to-b i)
            (recur (inc i) (if (= i (a/<! to-a)) bad (inc bad))))
        (do (a/close! to-b)
            (a/>! report bad))))
    (let [bad (a/<!! report)
          wall (- (c/now) start)]
      (when (pos? (long bad))
        (c/fail! "pingpong: " bad " of " r " replies differ from their request"))
      {:wall-ns wall})))
