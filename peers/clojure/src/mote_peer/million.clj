(ns mote-peer.million
  "million on core.async: K go blocks parked in a take; main sends each one message, each
  replies to main and ends."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn run
  "Main sends with `put!`, the asynchronous send: it hands the message to a parked go block
  (or leaves it waiting for one not yet parked) without blocking main. Main's reply
  channel holds all K replies, as a mailbox would; core.async also refuses more than 1024
  puts waiting on one channel, so K go blocks could not all wait on an unbuffered one."
  [_ {:keys [k]} _]
  (let [k (long k)
        replies (a/chan k)
        inboxes (object-array k)
        start (c/now)]
    (dotimes [i k]
      (let [in (a/chan)]
        (aset inboxes i in)
        (a/go (a/<! in) (a/>! replies :done))))
    (let [spawned (c/now)]
      (dotimes [i k] (a/put! (aget inboxes i) :go))
      (let [got (loop [got 0] (if (and (< got k) (a/<!! replies)) (recur (inc got)) got))
            wall (- (c/now) start)]
        (when (not= got k) (c/fail! "million: " got " replies, want " k))
        {:wall-ns wall
         :extras [["spawn_ms" (c/ms (- spawned start))]]}))))
