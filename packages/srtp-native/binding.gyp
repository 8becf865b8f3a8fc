{
  "targets": [
    {
      "target_name": "srtp_native",
      "sources": ["src/srtp_sealer.c", "src/datagram_sender.c"],
      "cflags": ["-O2", "-Wall", "-Wno-deprecated-declarations"]
    }
  ]
}
