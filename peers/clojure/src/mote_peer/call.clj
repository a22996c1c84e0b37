(ns mote-peer.call
  "call on core.async: one server go block; a client go block makes R request/reply calls
  (request i, reply i+1), then reports to main."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn run
  "A request carries the channel to answer on. The client owns one reply channel with room
  for one answer and reuses it for every call, as core.async code does when one caller
  waits on one answer at a time; the request channel is unbuffered (a call waits anyway)."
  [_ {:keys [r]} _]
  (let [r (long r)
        start (c/now)
        requests (a/chan)
        report (a/chan 1)]
    (a/go-loop [] ; the server
      (when-some [[i reply] (a/<! requests)]
        (a/>! reply (inc (long i)))
        (recur)))
    (a/go ; the client
      (let [reply (a/chan 1)]
        (loop [i 0 bad 0]
          (if (< i r)
            (do (a/>! requests [i reply])
                (recur (inc i) (if (= (inc i) (a/<! reply)) bad (inc bad))))
            (do (a/close! requests)
                (a/>! report bad))))))
    (let [bad (a/<!! report)
          wall (- (c/now) start)]
      (when (pos? (long bad)) (c/fail! "call: " bad " of " r " replies are not request + 1"))
      {:wall-ns wall})))
