(ns mote-peer.workers
  "workers on core.async: the sum of count-factors(i) for i in 1..=N, one message per item."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn validate [{:keys [w]}]
  (when-not (pos? w) "workers needs w >= 1"))

(defn- take-sum
  "Takes n replies off `replies` and sums them."
  ^long [replies ^long n]
  (loop [i 0 s 0] (if (< i n) (recur (inc i) (+ s (long (a/<!! replies)))) s)))

(defn- serial [^long n]
  (loop [i 1 s 0] (if (<= i n) (recur (inc i) (+ s (c/count-factors i))) s)))

(defn- master-slave
  "One go block per item, each putting its count on main's channel."
  [^long n replies]
  (doseq [i (range 1 (inc n))]
    (a/go (a/>! replies (c/count-factors i))))
  (take-sum replies n))

(defn- start-worker
  "A go block counting every item on `in` and putting the count on `replies`."
  [in replies]
  (a/go-loop []
    (when-some [i (a/<! in)]
      (a/>! replies (c/count-factors i))
      (recur))))

(defn run
  "The reply channel holds all N replies (main's mailbox), so no worker waits to reply.
  `push`: W workers started before the clock, each with an inbox of `buf` slots; main
  pushes items round-robin with the blocking `>!!`, so a full inbox makes main wait.
  `steal`: W workers started before the clock all take from one unbuffered channel, so
  main's put completes only when some worker is idle and asks (core.async's work
  queue idiom)."
  [variant {:keys [w n]} {:keys [buf]}]
  (let [n (long n)
        w (long w)
        want (serial n)
        replies (a/chan n)
        [start got] (case variant
                      "serial" [(c/now) (serial n)]
                      "master_slave" [(c/now) (master-slave n replies)]
                      "push" (let [inboxes (vec (repeatedly w #(c/inbox buf)))
                                   _ (run! #(start-worker % replies) inboxes)
                                   start (c/now)]
                               (doseq [i (range 1 (inc n))]
                                 (a/>!! (inboxes (rem (dec i) w)) i))
                               (let [got (take-sum replies n)]
                                 (run! a/close! inboxes)
                                 [start got]))
                      "steal" (let [items (a/chan)
                                    _ (dotimes [_ w] (start-worker items replies))
                                    start (c/now)]
                                (doseq [i (range 1 (inc n))] (a/>!! items i))
                                (let [got (take-sum replies n)]
                                  (a/close! items)
                                  [start got])))
        wall (- (c/now) start)]
    (when (not= got want) (c/fail! "workers " variant ": sum " got ", want " want))
    {:wall-ns wall}))
